# The release image: the binary goreleaser built for the platform, on a
# distroless base (CA certificates and /etc/passwd, no shell), run as the
# base's non-root user. goreleaser's dockers_v2 puts each platform's binary
# at <os>/<arch>/conform in the build context.
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/conform /usr/local/bin/conform
COPY LICENSE NOTICE /usr/share/doc/conform/
ENTRYPOINT ["/usr/local/bin/conform"]
