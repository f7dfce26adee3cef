"""Placeholder package created by the infrastructure work; the owning engineer fills it."""
