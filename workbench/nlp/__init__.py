"""Text measures several parts share: METEOR as nltk computes it (contamination scores,
AVeriTeC evidence scoring, search-leak checks) and the NLTK data it needs."""
