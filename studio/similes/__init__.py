"""Similes: components, detection, the studio's simile knowledge base, and polishing literal sentences."""
