import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheLifetime } from '#lib/net/cache-lifetime.ts';
import { clientMetadataUrlProblem } from '#lib/oauth/client-metadata-url.ts';
import { clientNameProblem } from '#lib/oauth/client-name.ts';
import { grantedScopes, registeredScopes } from '#lib/oauth/client-scopes.ts';
import { redirectHost, redirectUriMatches, redirectUriProblem } from '#lib/oauth/redirect-uris.ts';
import { canonicalResource, parseScopes, protectedResourceMetadataUrl } from '#lib/oauth/settings.ts';

describe('redirect URI rules (RFC 6749, RFC 8252)', () => {
  it.each([
    'https://app.example/callback',
    'https://app.example:8443/cb?x=1',
    'http://127.0.0.1/callback',
    'http://127.0.0.1:33418/callback',
    'http://[::1]:5000/cb',
    'http://localhost:8080/cb',
    'com.example.app:/oauth2redirect',
    'com.example.app:/callback',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', /javascript/],
    ['data:text/html,hi', /data/],
    ['file:///etc/passwd', /file/],
    ['http://app.example/cb', /loopback/],
    ['http://127.0.0.2.example/cb', /loopback/],
    ['https://app.example/cb#fragment', /fragment/],
    ['https://app.example/cb#', /fragment/],
    ['http://127.0.0.1:33418/callback#', /fragment/],
    ['com.example.app:/cb#', /fragment/],
    ['https://user:pw@app.example/cb', /credentials/],
    ['https://@app.example/cb', /credentials/],
    ['http://user@127.0.0.1/callback', /credentials/],
    ['http://:pw@localhost:8080/cb', /credentials/],
    ['http://@[::1]:5000/cb', /credentials/],
    ['myapp:/cb', /scheme/],
    ['/relative', /absolute/],
  ])('refuses %s', (uri, why) => {
    expect(redirectUriProblem(uri)).toMatch(why);
  });

  it('matches exactly, except that a loopback redirect may use any port', () => {
    const registered = ['http://127.0.0.1/callback', 'https://app.example/cb', 'http://localhost:3000/cb'];

    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://localhost:9999/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'https://app.example/cb/')).toBe(false);
    expect(redirectUriMatches(registered, 'https://app.example:443/cb?x')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(redirectUriMatches(registered, 'http://[::1]:51234/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'https://127.0.0.1/callback')).toBe(false);
  });

  it('never matches a fragment or userinfo, which the port-free loopback comparison would not see', () => {
    const registered = ['http://127.0.0.1/callback', 'https://app.example/cb#'];

    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback#')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback#x')).toBe(false);
    expect(redirectUriMatches(registered, 'http://evil@127.0.0.1:51234/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'http://@127.0.0.1:51234/callback')).toBe(false);
    // Registered before the rule refused an empty fragment: still never matched.
    expect(redirectUriMatches(registered, 'https://app.example/cb#')).toBe(false);
  });

  it('shows the host a code will go to, or the scheme of a native app', () => {
    expect(redirectHost('http://127.0.0.1:33418/callback')).toBe('127.0.0.1:33418');
    expect(redirectHost('com.example.app:/cb')).toBe('com.example.app');
  });
});

describe('scopes and resources', () => {
  beforeEach(() => {
    process.env.OAUTH_ISSUER = 'https://api.example.com';
  });
  afterEach(() => {
    delete process.env.OAUTH_ISSUER;
  });

  it('splits scopes on any whitespace (and a form-encoded +), defaults them, and names unknown ones', () => {
    expect(parseScopes(undefined)).toEqual(['edits:read', 'edits:write']);
    expect(parseScopes('  ')).toEqual(['edits:read', 'edits:write']);
    expect(parseScopes('edits:read\n\tedits:read offline_access')).toEqual(['edits:read', 'offline_access']);
    expect(parseScopes('edits:read+edits:write')).toEqual(['edits:read', 'edits:write']);
    expect(parseScopes('edits:read openid admin')).toBe('openid admin');
  });

  it.each([
    ['https://api.example.com/mcp', 'https://api.example.com/mcp'],
    ['https://api.example.com/mcp/', 'https://api.example.com/mcp'],
    ['HTTPS://API.EXAMPLE.COM/mcp', 'https://api.example.com/mcp'],
    ['https://api.example.com:443/api/v1/edits', 'https://api.example.com/api/v1/edits'],
    ['https://api.example.com/MCP', undefined],
    ['https://api.example.com/mcp?x=1', undefined],
    ['https://api.example.com/mcp#x', undefined],
    ['https://other.example.com/mcp', undefined],
    ['not a url', undefined],
  ])('reads the resource %s as %s', (requested, expected) => {
    expect(canonicalResource(requested)).toBe(expected);
  });

  it('puts a resource’s metadata at the well-known prefix before its path (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrl('https://api.example.com/api/v1/edits')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource/api/v1/edits',
    );
  });
});

describe('client metadata document caching', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');

  it.each([
    [{ 'cache-control': 'max-age=600' }, 600],
    [{ 'cache-control': 'public, max-age=999999' }, 999999],
    [{ 'cache-control': 'no-store' }, 0],
    [{ 'cache-control': 'no-cache, max-age=600' }, 0],
    [{ 'cache-control': 'private, max-age=600' }, 0],
    [{ expires: 'Sun, 22 Nov 2026 12:10:00 GMT' }, 600],
    [{ expires: 'Sun, 22 Nov 2026 11:00:00 GMT' }, 0],
    [{ expires: 'garbage' }, 0],
    [{}, 0],
  ])('caches %j for %d s', (headers, seconds) => {
    expect(cacheLifetime(headers as Record<string, string>, now)).toBe(seconds);
  });
});

describe('client metadata document URLs (client_id)', () => {
  it.each([
    'https://app.example/client.json',
    'https://app.example:8443/oauth/client-metadata.json',
    'https://app.example/a/b/c',
    'https://app.example/..json',
    'https://app.example/.well-known/client',
  ])('accepts %s', (url) => {
    expect(clientMetadataUrlProblem(url)).toBeUndefined();
  });

  it.each([
    ['not a url', /not a URL/],
    ['http://app.example/client.json', /https/],
    ['ftp://app.example/client.json', /https/],
    ['https://app.example', /path/],
    ['https://app.example/', /path/],
    ['https://app.example/?client=1', /path/],
    ['https://app.example//', /path/],
    ['https://app.example/client.json#', /fragment/],
    ['https://app.example/client.json#main', /fragment/],
    ['https://user@app.example/client.json', /user name/],
    ['https://user:pw@app.example/client.json', /user name/],
    ['https://@app.example/client.json', /user name/],
    ['https://app.example/./client.json', /segments/],
    ['https://app.example/a/../client.json', /segments/],
    ['https://app.example/a/..', /segments/],
    ['https://app.example/a/%2e%2e/client.json', /segments/],
    ['https://app.example/a/%2E%2e/client.json', /segments/],
    ['https://app.example/a/.%2e/client.json', /segments/],
    ['https://app.example/%2e/client.json', /segments/],
    ['https://app.example/a\\..\\client.json', /segments/],
    ['https://app.example/a/b/c?version=2', /query/],
    ['https://app.example/client.json?', /query/],
    ['https://app.example/client.json?x=%2F', /query/],
  ])('refuses %s', (url, why) => {
    expect(clientMetadataUrlProblem(url)).toMatch(why);
  });

  it('accepts plain http only for the origins it is given (the SSRF guard allow-list of tests)', () => {
    const allowed = new Set(['http://127.0.0.1:4321']);

    expect(clientMetadataUrlProblem('http://127.0.0.1:4321/client.json', allowed)).toBeUndefined();
    expect(clientMetadataUrlProblem('http://127.0.0.1:4322/client.json', allowed)).toMatch(/https/);
    expect(clientMetadataUrlProblem('http://127.0.0.1:4321/a/../client.json', allowed)).toMatch(/segments/);
  });
});

describe('client names', () => {
  it.each([
    ['Claude Code'],
    ['x'.repeat(100)],
    ['\u{1F600}'.repeat(100)],
    ['Ассистент 助手'],
    ['Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
    ['\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645'],
  ])('accepts %j', (name) => {
    expect(clientNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['C0 NUL', 'a\u0000b'],
    ['C0 tab', 'a\tb'],
    ['C0 line feed', 'a\nb'],
    ['C0 escape', 'a\u001Bb'],
    ['DEL', 'a\u007Fb'],
    ['C1 next line', 'a\u0085b'],
    ['C1 CSI', 'a\u009Bb'],
    ['Arabic letter mark', 'a\u061Cb'],
    ['left-to-right mark', 'a\u200Eb'],
    ['right-to-left mark', 'a\u200Fb'],
    ['left-to-right embedding', 'a\u202Ab'],
    ['right-to-left embedding', 'a\u202Bb'],
    ['pop directional formatting', 'a\u202Cb'],
    ['left-to-right override', 'a\u202Db'],
    ['right-to-left override', 'a\u202Eb'],
    ['left-to-right isolate', 'a\u2066b'],
    ['right-to-left isolate', 'a\u2067b'],
    ['first strong isolate', 'a\u2068b'],
    ['pop directional isolate', 'a\u2069b'],
    ['zero-width space', 'a\u200Bb'],
    ['word joiner', 'a\u2060b'],
    ['byte order mark', 'a\uFEFFb'],
    ['soft hyphen', 'a\u00ADb'],
    ['line separator', 'a\u2028b'],
    ['paragraph separator', 'a\u2029b'],
    ['tag character', 'a\u{E0041}b'],
    ['lone surrogate', 'a\uD800b'],
  ])('refuses a %s', (_what, name) => {
    expect(clientNameProblem(name)).toMatch(
      /control or invisible formatting characters \(found U\+[0-9A-F]{4,5}\)/,
    );
  });

  it('refuses more than 100 characters (counted as characters, not UTF-16 units) and blank names', () => {
    expect(clientNameProblem('x'.repeat(101))).toMatch(/at most 100/);
    expect(clientNameProblem('\u{1F600}'.repeat(101))).toMatch(/at most 100/);
    expect(clientNameProblem('')).toMatch(/blank/);
    expect(clientNameProblem(' \u3000 ')).toMatch(/blank/);
  });
});

describe('client scopes', () => {
  it('registers the scopes sent, or every supported one, and names unknown ones', () => {
    expect(registeredScopes(undefined)).toEqual(['edits:read', 'edits:write', 'offline_access']);
    expect(registeredScopes('edits:read  edits:read\toffline_access')).toEqual([
      'edits:read',
      'offline_access',
    ]);
    expect(registeredScopes('')).toEqual([]);
    expect(registeredScopes('edits:read openid admin')).toEqual({ unknown: 'openid admin' });
  });

  it.each([
    // asked, registered, granted
    ['edits:read', 'edits:read edits:write', ['edits:read']],
    [
      'edits:write+offline_access',
      'edits:read edits:write offline_access',
      ['edits:write', 'offline_access'],
    ],
    ['edits:read edits:write', undefined, ['edits:read', 'edits:write']],
    [undefined, undefined, ['edits:read', 'edits:write']],
    [undefined, 'edits:read edits:write offline_access', ['edits:read', 'edits:write']],
    [undefined, 'edits:read offline_access', ['edits:read']],
    ['  ', 'edits:write', ['edits:write']],
    // A stored scope the server no longer knows is ignored, not granted.
    [undefined, 'edits:read retired:scope', ['edits:read']],
  ] as const)('asked %j with %j registered: %j', (asked, registered, granted) => {
    expect(grantedScopes(asked, registered)).toEqual(granted);
  });

  it.each([
    ['edits:read edits:write', 'edits:read', /did not register the scope edits:write/],
    ['offline_access', 'edits:read edits:write', /did not register the scope offline_access/],
    ['edits:read', '', /did not register the scope edits:read/],
    ['edits:read admin', 'edits:read', /Unsupported scope: admin/],
    [undefined, 'offline_access', /registered none of the defaults/],
    [undefined, '', /registered none of the defaults/],
  ] as const)('refuses %j with %j registered', (asked, registered, why) => {
    const granted = grantedScopes(asked, registered);
    expect(Array.isArray(granted) ? granted : granted.problem).toMatch(why);
  });
});
