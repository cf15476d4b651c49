"""The class poll's store: codes.py (rules that need no database: codes, keys, seats, errors), schema.py
(the tables and their migrations) and store.py (the Store on SQLAlchemy Core, imported when a room opens)."""
