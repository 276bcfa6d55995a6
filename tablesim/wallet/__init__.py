"""The operator's wallet for remote play: the protocol (records, signing),
the reference wallet (ledger, app), the client the platform uses, and the
conformance kit any wallet is checked with. See docs/wallet.md."""
