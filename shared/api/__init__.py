"""The HTTP API described as data: request and response models, and the OpenAPI document."""
