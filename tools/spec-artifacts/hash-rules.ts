/**
 * Rule (c): hashes in the examples. A <hash/> must be SHA-256 over the RFC 8785 canonical
 * bytes of the JSON it stands for (#registration-flow, #manifest-retrieval, #schemas);
 * served <json/> must be those canonical bytes; the independent vectors must reproduce; and
 * every pinned hash must select a manifest from the spec that fits its context, which is
 * where the examples' internal contradictions (interp-01) surface.
 */
import { canonicalDocument, canonicalJson } from '../../protocol/json/canonical.ts';
import { isJsonObject, type JsonValue } from '../../protocol/json/json-value.ts';
import { HASH_ALGO_SHA256, NS_AGENT_API } from '../../protocol/namespaces.ts';
import type { ExampleMaterial, JsonSite, Payload } from './example-documents.ts';
import { blockLocation, exampleArtifact, SPEC_ARTIFACT, type Finding } from './finding.ts';
import {
  hashChild,
  pinnedHash,
  type ExamplePins,
  type ManifestPin,
  type PinnedHash,
  type SchemaPin,
} from './example-pins.ts';
import type { HashVector } from './hash-vectors.ts';
import { resolvePointer } from '../../protocol/json/json-pointer.ts';
import { catalogueManifests, type CataloguedManifest } from './manifest-catalogue.ts';
import { attributeValue, firstChild, textContent } from '../../protocol/xml/xml-query.ts';
import type { XmlElement } from '../../protocol/xml/read-xml.ts';

export function checkHashes(
  material: ExampleMaterial,
  pins: ExamplePins,
  hashVectors: readonly HashVector[],
): Finding[] {
  const catalogue = catalogueManifests(material.jsonSites);
  return [
    ...selfHashes(material),
    ...vectors(material.jsonSites, hashVectors),
    ...manifestIdentity(catalogue, pins.manifestPins),
    ...pins.manifestPins.flatMap((pin) => manifestPin(pin, catalogue)),
    ...pins.schemaPins.map((pin) => schemaPin(pin, catalogue)),
  ];
}

function sha256(value: JsonValue): string {
  return canonicalDocument(value).hash.value;
}

function short(hash: string): string {
  return `${hash.slice(0, 8)}…`;
}

/** Version 0 hashes are SHA-256 (#endpoint-info, #registration-flow). */
function algoProblem(pinned: PinnedHash): string | undefined {
  if (pinned.algo === HASH_ALGO_SHA256) return undefined;
  return `algo is ${pinned.algo === undefined ? 'missing' : JSON.stringify(pinned.algo)}; version 0 requires sha-256`;
}

/** Why a pinned hash does not cover this JSON, or undefined when it does. */
function hashProblem(pinned: PinnedHash, value: JsonValue): string | undefined {
  const algo = algoProblem(pinned);
  if (algo !== undefined) return algo;
  const computed = sha256(value);
  return computed === pinned.value
    ? undefined
    : `pins ${pinned.value} but the canonical bytes hash to ${computed}`;
}

function selfHashes(material: ExampleMaterial): Finding[] {
  const siteOf = new Map<XmlElement, JsonSite>();
  for (const site of material.jsonSites) if (site.element !== undefined) siteOf.set(site.element, site);
  const findings: Finding[] = [];
  for (const payload of material.payloads) {
    const { element } = payload;
    if (element.namespace !== NS_AGENT_API) continue;
    if (element.localName === 'manifest' || element.localName === 'schema') {
      const container =
        element.localName === 'schema' ? firstChild(element, 'schema-hash', NS_AGENT_API) : element;
      const hash = container === undefined ? undefined : hashChild(container);
      const json = firstChild(element, 'json', NS_AGENT_API);
      const site = json === undefined ? undefined : siteOf.get(json);
      if (hash === undefined || json === undefined || site === undefined) continue;
      const where = `<${element.localName}/>`;
      findings.push(selfHash(payload, `${where} hash of <json/>`, pinnedHash(hash), site.value));
      const canonical = canonicalJson(site.value) === textContent(json);
      findings.push({
        severity: canonical ? 'ok' : 'fail',
        rule: 'hash-self',
        artifact: exampleArtifact(payload.example.caption),
        subject: `${where} <json/> is canonical`,
        details: canonical
          ? 'character data is exactly the RFC 8785 canonical text'
          : 'character data is not the RFC 8785 canonical text that was hashed (#manifest-retrieval)',
        ...blockLocation(payload.example, site.line),
      });
    }
    if (element.localName === 'registered') findings.push(...registeredHash(payload, material));
  }
  return findings;
}

function selfHash(payload: Payload, subject: string, pinned: PinnedHash, value: JsonValue): Finding {
  const problem = hashProblem(pinned, value);
  return {
    severity: problem === undefined ? 'ok' : 'fail',
    rule: 'hash-self',
    artifact: exampleArtifact(payload.example.caption),
    subject,
    details: problem ?? `${short(pinned.value)} is the SHA-256 of the canonical bytes`,
    ...blockLocation(payload.example, payload.line),
  };
}

/** <registered/> must carry the hash of the manifest <register/> sent in the same exchange. */
function registeredHash(registered: Payload, material: ExampleMaterial): Finding[] {
  const hash = hashChild(registered.element);
  if (hash === undefined) return [];
  const jid = attributeValue(registered.element, 'jid');
  const version = attributeValue(registered.element, 'version');
  const registrations = material.jsonSites.filter(
    (site) => site.example === registered.example && site.site === 'register/manifest',
  );
  if (registrations.length === 0) return [];
  const matching = registrations.find((site) => {
    const agent = isJsonObject(site.value) ? site.value['agent'] : undefined;
    return isJsonObject(agent) && agent['jid'] === jid && agent['version'] === version;
  });
  if (matching === undefined) {
    return [
      {
        severity: 'fail',
        rule: 'hash-self',
        artifact: exampleArtifact(registered.example.caption),
        subject: '<registered/> hash of <register/> manifest',
        details: `no <register/> manifest in the exchange has agent.jid ${jid ?? '?'} and version ${version ?? '?'}`,
        ...blockLocation(registered.example, registered.line),
      },
    ];
  }
  return [
    selfHash(registered, '<registered/> hash of <register/> manifest', pinnedHash(hash), matching.value),
  ];
}

function vectors(sites: readonly JsonSite[], hashVectors: readonly HashVector[]): Finding[] {
  return hashVectors.map((vector): Finding => {
    const site = sites.find(
      (candidate) => candidate.example.caption === vector.caption && candidate.site === vector.site,
    );
    const value = site === undefined ? undefined : resolvePointer(site.value, vector.pointer);
    const base = {
      rule: 'hash-vector',
      artifact: exampleArtifact(vector.caption),
      subject: vector.label,
    } as const;
    if (site === undefined || value === undefined) {
      return { ...base, severity: 'fail', details: `no JSON at ${vector.site}${vector.pointer} to check` };
    }
    const computed = sha256(value);
    return {
      ...base,
      severity: computed === vector.expected ? 'ok' : 'fail',
      details:
        computed === vector.expected
          ? `hashes to ${vector.expected}`
          : `hashes to ${computed}, vector expects ${vector.expected}`,
      ...blockLocation(site.example, site.line),
    };
  });
}

function sourcesOf(manifest: CataloguedManifest): string {
  return [...manifest.sources].map((caption) => `"${caption}"`).join(', ');
}

/** (jid, version) is immutable (#registration-flow): one version, one manifest. */
function manifestIdentity(
  catalogue: ReadonlyMap<string, CataloguedManifest>,
  pins: readonly ManifestPin[],
): Finding[] {
  const groups = new Map<string, CataloguedManifest[]>();
  for (const manifest of catalogue.values()) {
    const key = `${manifest.jid ?? '?'} ${manifest.version ?? '?'}`;
    groups.set(key, [...(groups.get(key) ?? []), manifest]);
  }
  return [...groups].map(([key, manifests]): Finding => {
    const base = { rule: 'manifest-identity', artifact: SPEC_ARTIFACT, subject: key } as const;
    if (manifests.length === 1)
      return { ...base, severity: 'ok', details: 'one manifest for this (jid, version)' };
    const described = manifests.map((manifest) => {
      const pinCount = pins.filter((pin) => pin.hash.value === manifest.hash).length;
      return `${manifest.hash} (in ${sourcesOf(manifest)}; pinned ${pinCount === 0 ? 'nowhere' : `${pinCount}×`})`;
    });
    return {
      ...base,
      severity: 'fail',
      details: `${manifests.length} different manifests claim the immutable (jid, version): ${described.join('; ')}`,
    };
  });
}

function manifestPin(pin: ManifestPin, catalogue: ReadonlyMap<string, CataloguedManifest>): Finding[] {
  const base = { rule: 'manifest-pin', artifact: exampleArtifact(pin.example.caption) } as const;
  const at = blockLocation(pin.example, pin.line);
  const fail = (aspect: string, details: string): Finding => ({
    ...base,
    severity: 'fail',
    subject: `${pin.where}: ${aspect}`,
    details,
    ...at,
  });
  const algo = algoProblem(pin.hash);
  if (algo !== undefined) return [fail('algo', algo)];
  const manifest = catalogue.get(pin.hash.value);
  if (manifest === undefined) {
    return [fail('unknown manifest', `no manifest in the spec hashes to ${pin.hash.value}`)];
  }
  const pinned = `${short(manifest.hash)} (the manifest in ${sourcesOf(manifest)})`;
  const failures: Finding[] = [];
  if (pin.version !== undefined && pin.version !== manifest.version) {
    failures.push(
      fail(`version ${pin.version}`, `pins ${pinned}, whose version is ${manifest.version ?? 'absent'}`),
    );
  }
  if (pin.tool !== undefined && !manifest.tools.has(pin.tool)) {
    const tools = manifest.tools.size === 0 ? 'no tools' : `only ${[...manifest.tools.keys()].join(', ')}`;
    failures.push(fail(`tool ${pin.tool}`, `pins ${pinned}, which has ${tools}`));
  }
  if (pin.description !== undefined && pin.description !== manifest.description) {
    const has =
      manifest.description === undefined
        ? 'no agent.description'
        : `agent.description ${JSON.stringify(manifest.description)}`;
    failures.push(
      fail(
        'description',
        `form says ${JSON.stringify(pin.description)}, but the pinned ${pinned} has ${has}`,
      ),
    );
  }
  if (failures.length > 0) return failures;
  return [{ ...base, severity: 'ok', subject: pin.where, details: `pins ${pinned}; consistent`, ...at }];
}

function schemaPin(pin: SchemaPin, catalogue: ReadonlyMap<string, CataloguedManifest>): Finding {
  const base = {
    rule: 'schema-pin',
    artifact: exampleArtifact(pin.example.caption),
    subject: pin.where,
  } as const;
  const at = blockLocation(pin.example, pin.line);
  const algo = algoProblem(pin.hash);
  if (algo !== undefined) return { ...base, severity: 'fail', details: algo, ...at };
  const member = pin.direction === 'input' ? 'inputSchema' : 'outputSchema';
  const candidates: { manifest: CataloguedManifest; hash: string }[] = [];
  for (const manifest of catalogue.values()) {
    if (pin.version !== undefined && manifest.version !== pin.version) continue;
    const schema = pin.tool === undefined ? undefined : manifest.tools.get(pin.tool)?.[member];
    if (schema !== undefined) candidates.push({ manifest, hash: sha256(schema) });
  }
  const what = `${pin.tool ?? '?'} ${member} at version ${pin.version ?? '?'}`;
  const match = candidates.find((candidate) => candidate.hash === pin.hash.value);
  if (match !== undefined) {
    return {
      ...base,
      severity: 'ok',
      details: `${short(pin.hash.value)} is the ${what} in ${sourcesOf(match.manifest)}`,
      ...at,
    };
  }
  return {
    ...base,
    severity: 'fail',
    details:
      candidates.length === 0
        ? `no manifest in the spec declares ${what}`
        : `pins ${pin.hash.value}, but ${what} hashes to ${candidates.map((candidate) => candidate.hash).join(' / ')}`,
    ...at,
  };
}
