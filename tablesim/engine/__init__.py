"""What every game's table shares: state machine building, the bet book,
table events, limits."""
