"""Spotter: the backend of the AI assistant inside a gym-management dashboard."""
