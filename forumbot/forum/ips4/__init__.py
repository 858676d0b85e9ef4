"""IPS 4 (Invision Community): topic pages saved from a browser are read (`pages.py`); there is no
network reader or writer yet. `dialect.py` declares it to the registry."""

NAME = "ips4"  # the engine's name as the saved pages' reader reports it; written here only
