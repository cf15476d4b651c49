"""Running Attention Lab as several processes behind HAProxy (see README.md here)."""
