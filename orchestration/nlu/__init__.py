"""Language understanding for the Intent Classifier: entities, meta-intents, semantic routes."""
