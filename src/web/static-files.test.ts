// The static server over a real socket on 127.0.0.1, against a temp copy of a renderer folder that
// holds symlinks: links that stay inside are served, links out of it (to /etc/passwd, a secret file
// next to the folder, a directory outside) answer 404 without a byte of the target.
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveStatic } from './static-files'

/** A full garbage collection now (V8's gc, exposed for this test). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
}

describe('serveStatic and symlinks', () => {
  let base: string
  let server: Server
  let url: string

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'cortex-static-'))
    const root = join(base, 'renderer')
    mkdirSync(join(root, 'assets'), { recursive: true })
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>')
    writeFileSync(join(root, 'assets', 'app.js'), 'export const one = 1')
    writeFileSync(join(base, 'secret.txt'), 'TOP-SECRET')
    mkdirSync(join(base, 'outside'))
    writeFileSync(join(base, 'outside', 'key.txt'), 'OUTSIDE-KEY')
    symlinkSync('/etc/passwd', join(root, 'passwd.txt'))
    symlinkSync(join(base, 'secret.txt'), join(root, 'secret.txt'))
    symlinkSync('../secret.txt', join(root, 'assets', 'relative.js'))
    symlinkSync(join(base, 'outside'), join(root, 'linked-dir'))
    symlinkSync('assets/app.js', join(root, 'alias.js'))
    // the served folder itself reached through a link: its real path is what counts
    symlinkSync(root, join(base, 'renderer-link'))
    server = createServer((req, res) => void serveStatic(join(base, 'renderer-link'), { 'X-Test': '1' }, req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    rmSync(base, { recursive: true, force: true })
  })

  it('closes the file of every response, also of downloads the client gave up on (no handle left for the garbage collector)', async () => {
    writeFileSync(join(base, 'renderer', 'assets', 'big.js'), Buffer.alloc(8 * 1024 * 1024, 0x20))
    const served = realpathSync(base)
    /** The process's open descriptors on files of the served folder. */
    const openServed = (): string[] => readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`)
        return target.startsWith(served) ? [target] : []
      } catch {
        return [] // closed meanwhile (or the directory handle of readdirSync itself)
      }
    })
    const gcWarnings: string[] = []
    const onWarning = (w: Error): void => {
      if (/file descriptor.*garbage collection/i.test(w.message)) gcWarnings.push(w.message)
    }
    process.on('warning', onWarning)
    try {
      for (let i = 0; i < 5; i++) {
        expect(await (await fetch(`${url}/assets/app.js`)).text()).toBe('export const one = 1')
        // a client that goes away mid-download (a page closed or navigated while its chunks load)
        const aborting = new AbortController()
        const res = await fetch(`${url}/assets/big.js`, { signal: aborting.signal })
        await res.body!.getReader().read()
        aborting.abort()
      }
      // every served file is closed by the server itself once its response is over
      const deadline = Date.now() + 5_000
      while (openServed().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(openServed()).toEqual([])
      // and none was left to the collector: a collection now would close it, with a warning
      collectGarbage()
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
      expect(gcWarnings).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('serves files inside, also through a link that stays inside and a linked root', async () => {
    const index = await fetch(`${url}/`)
    expect(index.status).toBe(200)
    expect(await index.text()).toContain('<title>app</title>')
    const alias = await fetch(`${url}/alias.js`)
    expect(alias.status).toBe(200)
    expect(alias.headers.get('content-type')).toMatch(/javascript/)
    expect(await alias.text()).toBe('export const one = 1')
  })

  it.each(['/passwd.txt', '/secret.txt', '/assets/relative.js', '/linked-dir/key.txt', '/linked-dir/'])('refuses %s, a link out of the folder', async (path) => {
    const res = await fetch(`${url}${path}`)
    expect(res.status).toBe(404)
    const body = await res.text()
    expect(body).not.toMatch(/root:|TOP-SECRET|OUTSIDE-KEY/)
    expect(res.headers.get('x-test')).toBe('1')
  })

  it('still refuses .. and encoded escapes', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const res = await fetch(`${url}${path}`)
      expect(res.status).toBe(404)
      expect(await res.text()).not.toContain('TOP-SECRET')
    }
  })
})
