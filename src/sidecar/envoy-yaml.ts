import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DescriptorLevel,
  EnvoyConfigError,
  type EnvoyConfigIssue,
  type EnvoyRlsConfig,
  type YamlLimit,
} from './envoy-config.js';
import { FileReader } from './envoy-file-reader.js';

export {
  type DescriptorLevel,
  type DescriptorNode,
  EnvoyConfigError,
  type EnvoyConfigIssue,
  type EnvoyRlsConfig,
  MAX_DEPTH,
  UNITS,
  type YamlLimit,
} from './envoy-config.js';

/**
 * envoyproxy/ratelimit's configuration files, read as that service reads them (its README,
 * "The configuration format", and src/config/config_impl.go): one `domain` per file, a tree of
 * `descriptors` (`key`, optional `value`, nested `descriptors`), and on any of them a `rate_limit`
 * (`unit`, `requests_per_unit`, `unlimited`, `name`, `replaces`) with `shadow_mode` and
 * `detailed_metric`. Pure: text in, a tree or every problem with its file, line and field out.
 */

/**
 * Files' text, each named: the configuration, or an EnvoyConfigError with every problem in every
 * file. Two files of one domain are refused, as the service does by default.
 */
export function parseEnvoyConfig(files: readonly { name: string; text: string }[]): EnvoyRlsConfig {
  const issues: EnvoyConfigIssue[] = [];
  const domains = new Map<string, DescriptorLevel>();
  const from = new Map<string, string>();
  const limits: YamlLimit[] = [];
  for (const { name, text } of files) {
    const r = new FileReader(name, text);
    const got = r.read();
    issues.push(...r.issues);
    if (got === null || r.issues.length > 0) continue;
    const other = from.get(got.domain);
    if (other !== undefined) {
      issues.push({
        file: name,
        line: 1,
        field: 'domain',
        message: `"${got.domain}" is also the domain of ${other}: one file per domain`,
      });
      continue;
    }
    from.set(got.domain, name);
    domains.set(got.domain, got.top);
    limits.push(...r.limits);
  }
  if (files.length === 0)
    issues.push({ file: '(none)', line: 0, field: '(files)', message: 'no .yaml or .yml file to load' });
  if (issues.length > 0) throw new EnvoyConfigError(issues);
  return { domains, limits, files: files.map((f) => f.name) };
}

/** The .yaml and .yml files a path names: the file itself, or a directory's (not its dot files), sorted. */
export function envoyConfigFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((n) => !n.startsWith('.') && /\.ya?ml$/i.test(n))
    .sort()
    .map((n) => join(path, n))
    .filter((p) => statSync(p).isFile());
}

/** Reads a file, or every .yaml/.yml file of a directory (one domain each). */
export function readEnvoyConfig(path: string): EnvoyRlsConfig {
  let names: string[];
  try {
    names = envoyConfigFiles(path);
  } catch (e) {
    throw new EnvoyConfigError([{ file: path, line: 0, field: '(path)', message: (e as Error).message }]);
  }
  if (names.length === 0) {
    throw new EnvoyConfigError([
      { file: path, line: 0, field: '(files)', message: 'no .yaml or .yml file in this directory' },
    ]);
  }
  const files: { name: string; text: string }[] = [];
  const unreadable: EnvoyConfigIssue[] = [];
  for (const name of names) {
    try {
      files.push({ name, text: readFileSync(name, 'utf8') });
    } catch (e) {
      // a file removed between the listing and the read (a swap in progress) is a problem like any other
      unreadable.push({ file: name, line: 0, field: '(file)', message: (e as Error).message });
    }
  }
  if (unreadable.length > 0) throw new EnvoyConfigError(unreadable);
  return parseEnvoyConfig(files);
}
