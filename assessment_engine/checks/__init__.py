"""Engines that produce the warehouse's facts: the config parser, rule engine and SLIC engine."""
