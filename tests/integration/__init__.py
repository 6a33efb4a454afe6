"""The integration tier: real servers (the chat app, the turn pool, a Trino protocol double), subprocesses (the
``assess`` command), a throwaway PostgreSQL cluster, the embedding runtimes side by side, fuzzing and the evals."""
