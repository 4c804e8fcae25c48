"""Finding papers by what they are like: more like this, recommendations, topics, and the model built in a helper process.

Empty on purpose: importing one module of it imports nothing else."""
