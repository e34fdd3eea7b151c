"""Oracle articles: each claim's fact-check page fetched from its address (or read from saved
pages and WARC files), its main text extracted and stored (store.articles), for the
contamination pipeline and the search leak check to read."""
