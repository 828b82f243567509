"""Deployment helpers run by cloudbuild.yaml: stage function sources, deploy Firestore indexes."""
