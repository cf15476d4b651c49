# Attention Lab: one Streamlit replica. compose.yaml runs several behind HAProxy (deploy/README.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt

# Only what the app runs on; .streamlit/config.toml keeps XSRF protection and CORS at their defaults.
COPY .streamlit/config.toml .streamlit/config.toml
COPY streamlit_app.py ./
COPY assets assets
COPY lessons lessons
COPY engine engine
COPY factory factory
COPY services services
COPY pages pages
COPY ui ui
# The app's modules compiled once, here: PYTHONDONTWRITEBYTECODE (and a user who cannot write to /app) would
# otherwise make every replica's start compile them again (~0.1 s of a cold start's server time).
RUN python -m compileall -q streamlit_app.py engine factory services pages ui

RUN useradd --system --create-home --uid 10001 lab \
 && mkdir -p /var/cache/attention-lab /app/.poll && chown lab /var/cache/attention-lab /app/.poll
# Finished training runs (factory.store); compose mounts one volume here for every replica, Kubernetes
# an emptyDir per pod. The trained presets' defaults ship in assets/weights/ and need none of it.
ENV ATTENTION_LAB_CACHE=/var/cache/attention-lab
# The class poll's SQLite file lives in /app/.poll (compose.yaml mounts one volume there for every replica;
# DATABASE_URL=postgresql://... uses PostgreSQL instead).
USER lab
EXPOSE 8501
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=2).read() != b'ok')"]
# 0.0.0.0 inside the container only: compose publishes HAProxy's port, never a replica's.
# server.cookieSecret comes from STREAMLIT_SERVER_COOKIE_SECRET (the same for every replica).
CMD ["streamlit", "run", "streamlit_app.py", "--server.port", "8501", "--server.address", "0.0.0.0", "--server.headless", "true"]
