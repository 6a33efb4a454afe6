"""Knowledge base: embeddings, loaders, splitter, vector index, retrieval and the seed corpus."""

import os

# Set before torch or FAISS is imported (each brings its own OpenMP runtime, which reads this when it loads). With
# the default, both runtimes' threads spin after every parallel region, and on a 2-core machine a question's
# embedding waits for FAISS's spinning threads and the other way round: `assess bench kb` measured the query
# embedding at 22.8 / 27.7 ms (p50 / p95) spinning and 15.8 / 18.8 ms passive, in the same run.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
