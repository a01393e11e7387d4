/** Unit test of the offline build check: what a network-none build would still fetch is refused, naming the line. */
import { describe, expect, it } from 'vitest'
import { assertNoHostNetworkInBuild } from './offline-build-check'

const local = async (ref: string): Promise<boolean> => ref === 'base:1'
const check = (text: string, args: Record<string, string> = {}) => assertNoHostNetworkInBuild('.devcontainer/Dockerfile', text, args, local)

describe('assertNoHostNetworkInBuild', () => {
  it('lets a local image, stages, scratch and context sources through', async () => {
    await expect(check('FROM base:1 AS build\nRUN make\nFROM scratch\nCOPY --from=build /out /out\nADD ./x.tar /x\nADD ["a b", "/c"]\n')).resolves.toBeUndefined()
    await expect(check('ARG BASE=base:1\nFROM ${BASE}\n')).resolves.toBeUndefined()
  })
  it('refuses remote ADD sources, naming the line', async () => {
    await expect(check('FROM base:1\nRUN true \\\n  && true\nADD http://127.0.0.1:9/secret /opt/leak\n')).rejects.toThrow(/line 4: `ADD http:\/\/127\.0\.0\.1:9\/secret \/opt\/leak` is fetched by the Docker engine/)
    await expect(check('FROM base:1\nADD --chown=1 git@example.invalid:x/y.git /src\n')).rejects.toThrow(/line 2/)
    await expect(check('FROM base:1\nADD ["https://127.0.0.1/x", "/x"]\n')).rejects.toThrow(/line 2/)
  })
  it('refuses images that are not on the engine, a syntax directive and unknown ARGs', async () => {
    await expect(check('FROM absent/img:1\n')).rejects.toThrow(/line 1: .*names the image absent\/img:1, which is not on this Docker engine/)
    await expect(check('FROM base:1\nCOPY --from=absent/img:2 /a /a\n')).rejects.toThrow(/line 2: .*absent\/img:2/)
    await expect(check('FROM base:1\nRUN --mount=type=bind,from=absent/img:3,target=/m true\n')).rejects.toThrow(/line 2: .*absent\/img:3/)
    await expect(check('# syntax=docker/dockerfile:1\nFROM base:1\n')).rejects.toThrow(/line 1: .*frontend image/)
    await expect(check('ARG BASE\nFROM $BASE\n')).rejects.toThrow(/line 2: .*ARG without a value/)
    await expect(check('ARG BASE\nFROM $BASE\n', { BASE: 'base:1' })).resolves.toBeUndefined()
  })
})
