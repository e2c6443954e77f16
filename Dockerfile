# syntax=docker/dockerfile:1
# The jobset-webhook image: built on Debian bookworm with the same commands as scripts/dev,
# shipped as the binary, its shared libraries and a passwd entry on an empty base. No shell, no
# package manager; runs as user 65532.
#   docker build -t jobset-webhook:0.1.0 .
# See docs/install.md. (This file is kept correct by reading and by tests/deploy, which run
# scripts/runtime-rootfs under chroot; Docker itself is not run by the test suite.)

FROM debian:bookworm AS build
WORKDIR /src
# The packages come from scripts/dev's own list, in a layer of their own so that a source change
# does not reinstall them.
COPY scripts/dev scripts/dev
RUN scripts/dev deps
COPY . .
RUN scripts/dev build \
 && scripts/runtime-rootfs build/jobset-webhook /rootfs

FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
# The Deployment (manifests/base/deployment.yaml) passes its own arguments; these are the same.
EXPOSE 9443 8081 8080
ENTRYPOINT ["/usr/local/bin/jobset-webhook"]
CMD ["serve", "--bind=0.0.0.0", "--port=9443", "--health-port=8081", "--metrics-port=8080", "--cert-dir=/etc/jobset-webhook/tls", "--shutdown-delay=5s", "--shutdown-grace=25s"]
