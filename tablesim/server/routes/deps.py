"""What the routes depend on: the table's runner, its tokens and the
operator a request's token belongs to."""

from __future__ import annotations

from fastapi import Header, HTTPException, Request

from tablesim.server.auth import Operator, TokenStore, bearer
from tablesim.server.runner import TableRunner


def runner(request: Request) -> TableRunner:
    """The table's runner (``app.state.runner``, set by ``create_app``)."""
    return request.app.state.runner


def operator_of(tokens: TokenStore, authorization: str | None) -> Operator:
    """The operator a bearer token belongs to; 401 without one or for an unknown one."""
    token = bearer(authorization)
    if token is None:
        raise HTTPException(401, "an operator token is needed (Authorization: Bearer <token>)",
                            headers={"WWW-Authenticate": "Bearer"})
    op = tokens.check(token)
    if op is None:
        raise HTTPException(401, "unknown operator token", headers={"WWW-Authenticate": "Bearer"})
    return op


def need(op: Operator, role: str, what: str) -> None:
    if not op.may(role):
        raise HTTPException(403, f"{what} needs a {role}: {op.name} is a {op.role}")


# async: a plain function would be run on a worker thread for every request
async def dealer(request: Request, authorization: str | None = Header(None)) -> Operator:
    return operator_of(request.app.state.tokens, authorization)


async def supervisor(request: Request, authorization: str | None = Header(None)) -> Operator:
    op = operator_of(request.app.state.tokens, authorization)
    need(op, "supervisor", "this")
    return op
