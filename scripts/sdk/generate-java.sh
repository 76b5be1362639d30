#!/usr/bin/env bash
# Regenerates the Java SDK of the native provider (package `helpdesk`) that the repository keeps in sdk/java, from the
# build's dist/schema.json (run scripts/build.sh first). Nothing in sdk/java is edited by hand: run this after a change
# of the schema (provider/native/schema.ts, kernel/settings.ts, the events, package.json's version or repository);
# tests/sdk/java-sdk.test.ts fails while sdk/java differs from what this writes. (sdk/go: scripts/sdk/generate.sh.)
#
#   scripts/sdk/generate-java.sh [OUT]      (default OUT: sdk/java; the test writes into a temporary folder)
#
# What it writes, all by tools:
#   1. OUT/src/main/java/<base>/helpdesk/..., OUT/src/main/resources/<base>/helpdesk/version.txt, OUT/README.md:
#      pulumi-java-gen (github.com/pulumi/pulumi-java/pkg, built by scripts/setup.sh --test) with `--build none`,
#      the Java package `<language.java.basePackage>.helpdesk` of the schema. It empties OUT first.
#   2. OUT/src/main/resources/<base>/helpdesk/plugin.json: the plugin's name, version and download URL, read by
#      Pulumi's Java SDK to tell the engine which plugin a program needs. pulumi-java-gen's Gradle build writes this
#      file at build time; without Gradle, this script writes the same fields from the schema.
#   3. OUT/pom.xml: written by this script from the template below (pulumi-java-gen writes Gradle build files only,
#      and Gradle cannot be downloaded here). The coordinates are kernel/names.ts `mavenGroupId` and
#      `MAVEN_ARTIFACT_ID` (`io.github.<owner>`, the namespace Maven Central grants, where pulumi-java-gen's Gradle
#      template takes the base package, a `com.github.*` group Central no longer grants) and the schema's version.
#      It compiles the sources with
#      Pulumi's Java SDK com.pulumi:pulumi at the version of pulumi-java-gen (go.mod of scripts/pulumi-build/java:
#      both are released together) and with what generated code imports and that SDK needs only at run time: gson
#      (the version com.pulumi:pulumi depends on) and jsr305 (`@Nullable`, the version pulumi-java-gen names).
#      What Maven Central requires of a release (CONTRIBUTING.md "Publishing"), for `npm run publish`
#      (scripts/publish/maven.ts: `mvn -Prelease deploy` into the folder it zips for the Central Portal): name,
#      description, url, licenses, scm and developers from the schema (description, homepage, repository, license,
#      publisher), and the -sources.jar and -javadoc.jar built in `package` (javadoc with doclint off: the generated
#      comments are the schema's, not Javadoc); the profile `release` (`-Prelease`, which scripts/publish/maven.ts
#      passes) signs every file with gpg, as Central requires.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
out="$(realpath -m "${1:-sdk/java}")"

[ -f dist/schema.json ] || die "missing dist/schema.json: run scripts/build.sh first"
[ -x "$HELPDESK_JAVA_GEN" ] || die "missing the Java SDK generator $HELPDESK_JAVA_GEN: run scripts/setup.sh --test (it builds it with Go)"

pulumi_java="$(awk '$1 == "require" && $2 == "github.com/pulumi/pulumi-java/pkg" { sub(/^v/, "", $3); print $3 }' scripts/pulumi-build/java/go.mod)"
[ -n "$pulumi_java" ] || die "scripts/pulumi-build/java/go.mod does not require github.com/pulumi/pulumi-java/pkg"
# The schema's facts, one per line: name, version, base package, plugin download URL.
{ read -r name; read -r version; read -r base; read -r server; read -r description; read -r homepage; read -r repository; read -r license; read -r publisher; } < <(node -e '
  const s = require("./dist/schema.json");
  if (!s.language?.java?.basePackage) throw new Error("dist/schema.json has no language.java.basePackage");
  for (const key of ["description", "homepage", "repository", "license", "publisher"]) if (!s[key]) throw new Error(`dist/schema.json has no ${key}`);
  if (s.license !== "Apache-2.0") throw new Error(`generate-java.sh knows the licence URL of Apache-2.0 only, not ${s.license}`);
  console.log([s.name, s.version, s.language.java.basePackage, s.pluginDownloadURL ?? "", s.description, s.homepage, s.repository, s.license, s.publisher].join("\n"));')
resources="$out/src/main/resources/${base//.//}/$name"
# The Maven coordinates from their home, kernel/names.ts, as the build compiled it: Node's type stripping cannot run
# kernel/names.ts itself, whose imports name its neighbours by their `.js` names (scripts/release/executable.ts).
{ read -r group; read -r artifact; } < <(node --input-type=module -e '
  const { mavenGroupId, MAVEN_ARTIFACT_ID } = await import("./dist/kernel/names.js");
  console.log([mavenGroupId(), MAVEN_ARTIFACT_ID].join("\n"));')
[ -n "$group" ] && [ -n "$artifact" ] || die "dist/kernel/names.js gave no Maven coordinates: run scripts/build.sh"

# pulumi-java-gen says on stderr that it is deprecated in favour of `pulumi package gen-sdk`, which the language hosts
# built here cannot serve (scripts/pulumi-build/README.md); its warnings about secret config getters are kept.
# It joins --out to its working folder even when --out is absolute: run it from / with OUT relative to that.
(cd / && "$HELPDESK_JAVA_GEN" generate --schema "$ROOT/dist/schema.json" --out "${out#/}" --build none --version "$version") 2>&1 |
  grep -v 'pulumi-java-gen is deprecated' >&2 || true
[ -f "$resources/version.txt" ] || die "pulumi-java-gen wrote no $resources/version.txt"

NAME="$name" VERSION="$version" SERVER="$server" node -e '
  const { NAME: name, VERSION: version, SERVER: server } = process.env;
  process.stdout.write(JSON.stringify({ resource: true, name, version, ...(server ? { server } : {}) }, null, 2) + "\n");
' > "$resources/plugin.json"

cat > "$out/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by scripts/sdk/generate-java.sh: do not edit. -->
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>

  <groupId>$group</groupId>
  <artifactId>$artifact</artifactId>
  <version>$version</version>
  <packaging>jar</packaging>
  <name>$name</name>
  <description>$description</description>
  <url>$homepage</url>

  <licenses>
    <license>
      <name>$license</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
    </license>
  </licenses>

  <developers>
    <developer>
      <id>$publisher</id>
      <name>$publisher</name>
      <url>https://github.com/$publisher</url>
    </developer>
  </developers>

  <scm>
    <url>$repository</url>
    <connection>scm:git:$repository.git</connection>
    <developerConnection>scm:git:$repository.git</developerConnection>
  </scm>

  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>11</maven.compiler.release>
  </properties>

  <dependencies>
    <dependency>
      <groupId>com.pulumi</groupId>
      <artifactId>pulumi</artifactId>
      <version>$pulumi_java</version>
    </dependency>
    <dependency>
      <groupId>com.google.code.gson</groupId>
      <artifactId>gson</artifactId>
      <version>2.10</version>
    </dependency>
    <dependency>
      <groupId>com.google.code.findbugs</groupId>
      <artifactId>jsr305</artifactId>
      <version>3.0.2</version>
    </dependency>
  </dependencies>

  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-source-plugin</artifactId>
        <version>3.4.0</version>
        <executions>
          <execution>
            <id>attach-sources</id>
            <goals><goal>jar-no-fork</goal></goals>
          </execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-javadoc-plugin</artifactId>
        <version>3.12.0</version>
        <configuration>
          <doclint>none</doclint>
          <quiet>true</quiet>
        </configuration>
        <executions>
          <execution>
            <id>attach-javadocs</id>
            <goals><goal>jar</goal></goals>
          </execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-deploy-plugin</artifactId>
        <version>3.1.4</version>
      </plugin>
    </plugins>
  </build>

  <profiles>
    <profile>
      <id>release</id>
      <build>
        <plugins>
          <plugin>
            <groupId>org.apache.maven.plugins</groupId>
            <artifactId>maven-gpg-plugin</artifactId>
            <version>3.2.7</version>
            <executions>
              <execution>
                <id>sign</id>
                <phase>verify</phase>
                <goals><goal>sign</goal></goals>
              </execution>
            </executions>
          </plugin>
        </plugins>
      </build>
    </profile>
  </profiles>
</project>
EOF
echo "Java SDK: $out ($group:$artifact:$version, package $base.$name, com.pulumi:pulumi $pulumi_java)" >&2
