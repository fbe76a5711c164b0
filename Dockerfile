# Cachegate's image: the runnable jar (with the bundled embedding model) on a Temurin 25 JRE, the current LTS. The
# jar is built on JDK 17 with `release 17` (as ./cachegate's build), so it runs on any Java from 17 on.
#   docker build -t cachegate .
#   docker run -p 8080:8080 -v $PWD/policy.yaml:/etc/cachegate/policy.yaml:ro cachegate
# Without /etc/cachegate/policy.yaml the embedded default policy runs. Any other arguments run that
# sub-command instead of serve (e.g. `simulate-backend --port 8000`). docs/deploy.md has the details.
# cli's ImageEntrypointIT reads this file and runs deploy/docker/entrypoint.sh with these paths.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -DskipTests package -pl cli -am

FROM eclipse-temurin:25-jre
ENV CACHEGATE_JAR=/opt/cachegate/cachegate.jar \
    CACHEGATE_POLICY=/etc/cachegate/policy.yaml \
    CACHEGATE_NATIVE_DIR=/opt/cachegate/native \
    CACHEGATE_AOT_CACHE=/opt/cachegate/aot/cachegate.aot \
    CACHEGATE_ADMIN_PORT=8081
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/cachegate --shell /usr/sbin/nologin cachegate \
    && mkdir -p /opt/cachegate/native /opt/cachegate/aot /etc/cachegate /var/lib/cachegate \
    && chown -R cachegate:cachegate /opt/cachegate/native /opt/cachegate/aot /var/lib/cachegate
COPY --from=build /src/cli/target/cachegate.jar /opt/cachegate/cachegate.jar
COPY deploy/docker/entrypoint.sh deploy/docker/healthcheck.sh /opt/cachegate/
USER 10001:10001
WORKDIR /var/lib/cachegate
# ONNX Runtime's native libraries, extracted once at build time into CACHEGATE_NATIVE_DIR.
RUN java -Dcachegate.native.dir=/opt/cachegate/native -jar /opt/cachegate/cachegate.jar --version
# The JDK 25 AOT cache: a training workload through in-process gateways and a simulator, run by the entrypoint (so
# with a start's JVM flags); it writes CACHEGATE_AOT_CACHE, which every start then loads (entrypoint.sh).
RUN /opt/cachegate/entrypoint.sh train-aot --duration 20s
EXPOSE 8080 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["/opt/cachegate/healthcheck.sh"]
ENTRYPOINT ["/opt/cachegate/entrypoint.sh"]
