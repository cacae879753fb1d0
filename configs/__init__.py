"""Packaged build configs."""
