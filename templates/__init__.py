"""Shipped question, caption and prompt templates."""
