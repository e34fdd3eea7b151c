"""Text measures several parts share: METEOR as nltk computes it (contamination scores,
AVeriTeC evidence scoring, search-leak checks) and the NLTK data it needs; cosine
similarity of sentence embeddings (contamination scores, near-duplicate claims in curation)."""
