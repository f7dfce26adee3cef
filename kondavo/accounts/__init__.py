"""Player identities: guests (session-based), registered users and bots."""
