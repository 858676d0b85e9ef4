"""Rendering for the forum: BBCode posts from outcomes and tallies (Jinja2 templates live here)."""
