"""Knowledge base: embeddings, loaders, splitter, vector index, retrieval and the seed corpus."""
