"""Outside services: the model (Anthropic, Bedrock, the scripted fake) and embeddings (Voyage)."""
