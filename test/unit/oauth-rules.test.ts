import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheLifetime } from '#lib/net/cache-lifetime.ts';
import { redirectHost, redirectUriMatches, redirectUriProblem } from '#lib/oauth/redirect-uris.ts';
import { canonicalResource, parseScopes, protectedResourceMetadataUrl } from '#lib/oauth/settings.ts';

describe('redirect URI rules (DESIGN §9, RFC 8252)', () => {
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
    ['https://user:pw@app.example/cb', /credentials/],
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
