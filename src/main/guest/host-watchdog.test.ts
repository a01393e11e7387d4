/**
 * Unit tests of the host watchdog's endpoint resolution (the watchdog itself is exercised through
 * `cortex run` in test/acceptance/guest-lifetime.test.ts: kill -9 with a stopped agent).
 */
import { describe, expect, it } from 'vitest'
import { dockerEndpointOf } from './host-watchdog'

describe('dockerEndpointOf', () => {
  it('takes a unix socket path, resolving a lazily found default', async () => {
    expect(await dockerEndpointOf({ socketPath: '/run/docker.sock' })).toEqual({ socketPath: '/run/docker.sock' })
    expect(await dockerEndpointOf({ socketPath: () => Promise.resolve('/var/run/docker.sock') })).toEqual({ socketPath: '/var/run/docker.sock' })
  })

  it('takes plain http host and port, and refuses TLS', async () => {
    expect(await dockerEndpointOf({ host: '127.0.0.1', port: '2375', protocol: 'http' })).toEqual({ host: '127.0.0.1', port: 2375 })
    expect(await dockerEndpointOf({ host: '127.0.0.1', port: '2376', protocol: 'https' })).toBeUndefined()
  })
})
