"""Reproductions of the papers' experiments (scripts; their outputs are committed under docs/experiments/)."""
