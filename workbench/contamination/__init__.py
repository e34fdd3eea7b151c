"""Contamination and evidence-overlap scoring (METEOR, Hungarian matching, AVeriTeC)."""
