"""Storage backends behind one protocol; `factory.open_store` is the only place naming them."""
