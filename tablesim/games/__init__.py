"""The games: one folder each, registered in ``registry``."""
