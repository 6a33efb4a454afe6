"""Conversation memory in SQLite (DESIGN §9): turns, personalization, self-corrections, agent memory."""
