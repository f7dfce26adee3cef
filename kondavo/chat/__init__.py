"""Chat rooms: the players' and the spectators' chat of a game, and any other room (a
tournament's), with moderation from day one (see ``services``)."""
