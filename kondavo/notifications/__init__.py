"""Notifications: what a player should hear of on any page (a challenge, its answer, a
rematch offer, an opponent joining, their turn in an untimed game, and later tournaments),
stored per player and sent live to their notification sockets (``/ws/notify/``)."""
