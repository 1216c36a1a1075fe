"""A small Django shop that takes payments on a smart POS terminal through smartpos."""
