# kube-extender image: docker build -t kube-extender:0.1.0 .
# Build stage: the same Debian packages as tools/install-deps.sh (the script itself runs).
FROM debian:bookworm AS build
WORKDIR /src
COPY tools/install-deps.sh tools/install-deps.sh
RUN tools/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DKEXT_BENCH=OFF \
 && cmake --build build -j"$(nproc)" --target kube-extender \
 && strip build/kube-extender

# Runtime stage: only the shared libraries the binary links (ldd build/kube-extender | dpkg -S):
# cpp-httplib's .so (which pulls zlib and brotli), oneTBB, OpenSSL, yaml-cpp.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libcpp-httplib0.11 libtbb12 libssl3 libyaml-cpp0.7 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/kube-extender /usr/local/bin/kube-extender
# The numeric id lets Kubernetes check runAsNonRoot without an /etc/passwd entry.
USER 65532:65532
EXPOSE 8888
ENTRYPOINT ["/usr/local/bin/kube-extender"]
