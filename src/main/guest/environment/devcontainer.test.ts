// devcontainer.json's subset (docs/adr/0038): what a guest honours, what is refused with a note,
// and clear errors for bad input.
import { describe, expect, it } from 'vitest'
import { parseDevcontainer } from './devcontainer'

const REPO = '/work/repo'
const parse = (text: string, file = '.devcontainer/devcontainer.json') => parseDevcontainer(text, file, REPO)

describe('parseDevcontainer', () => {
  it('reads image, env, user and the create-time commands from JSONC', () => {
    const d = parse(`{
      // comments and trailing commas are allowed
      "image": "python:3.12-slim",
      "containerEnv": { "A": "1", "W": "\${containerWorkspaceFolder}/x" },
      "remoteEnv": { "A": "2" },
      "remoteUser": "vscode",
      "onCreateCommand": ["make", "deps"],
      "postCreateCommand": { "npm": "npm ci", "pip": "pip install -r requirements.txt" },
    }`)
    expect(d.base).toEqual({ kind: 'image', image: 'python:3.12-slim' })
    expect(d.env).toEqual({ A: '2', W: `${REPO}/x` })
    expect(d.user).toBe('vscode')
    expect(d.setup).toEqual([
      { label: 'onCreateCommand', argv: ['make', 'deps'] },
      { label: 'postCreateCommand:npm', argv: ['sh', '-c', 'npm ci'] },
      { label: 'postCreateCommand:pip', argv: ['sh', '-c', 'pip install -r requirements.txt'] }
    ])
    expect(d.notes.join('\n')).toContain("remoteUser 'vscode' is mapped onto the repository owner's uid")
    expect(d.setupNetwork).toBe(false)
  })

  it('resolves build paths against the file\'s folder and refuses one leaving the repository', () => {
    const d = parse('{ "build": { "dockerfile": "Dockerfile", "context": "..", "args": { "V": "1" }, "target": "dev" } }')
    expect(d.base).toEqual({ kind: 'build', dockerfile: '.devcontainer/Dockerfile', context: '', args: { V: '1' }, target: 'dev' })
    expect(() => parse('{ "build": { "dockerfile": "../../etc/Dockerfile" } }')).toThrow(/build.dockerfile '..\/..\/etc\/Dockerfile' leaves the repository/)
    expect(parse('{ "build": { "dockerfile": "Dockerfile" } }', '.devcontainer.json').base).toMatchObject({ dockerfile: 'Dockerfile', context: '' })
  })

  it('refuses what would weaken the guest, naming each option, and keeps going', () => {
    const d = parse('{ "image": "x", "privileged": true, "capAdd": ["SYS_ADMIN"], "runArgs": ["--network=host"], "mounts": ["source=/,target=/host,type=bind"], "features": { "ghcr.io/devcontainers/features/node:1": {} }, "securityOpt": ["seccomp=unconfined"], "initializeCommand": "curl x | sh", "postStartCommand": "x" }')
    const refused = d.notes.find((n) => n.startsWith('refused:')) ?? ''
    for (const k of ['privileged', 'capAdd', 'runArgs', 'mounts', 'features', 'securityOpt', 'initializeCommand']) expect(refused).toContain(`${k} (`)
    expect(refused).toContain('The guest keeps its hardening')
    expect(d.notes.join('\n')).toContain('ignored: postStartCommand')
    expect(d.setup).toEqual([])
    // an empty features object asks for nothing
    expect(parse('{ "image": "x", "features": {} }').notes).toEqual([])
  })

  it('gives a clear error for bad input', () => {
    expect(() => parse('{ "image": ')).toThrow(/devcontainer.json: not valid JSON with comments/)
    expect(() => parse('{ "name": "x" }')).toThrow(/names neither an image nor build.dockerfile/)
    expect(() => parse('{ "image": "x", "postCreateCommand": 3 }')).toThrow(/postCreateCommand must be a command string/)
    expect(() => parse('{ "image": "x", "containerEnv": { "A": 1 } }')).toThrow(/containerEnv.A must be a string/)
  })

  it('notes the host environment is never substituted, and reads the network request', () => {
    const d = parse('{ "image": "x", "containerEnv": { "T": "${localEnv:GITHUB_TOKEN}" }, "customizations": { "cortex": { "setupNetwork": true } } }')
    expect(d.env.T).toBe('')
    expect(d.notes.join('\n')).toContain('${localEnv:GITHUB_TOKEN} is not substituted')
    expect(d.setupNetwork).toBe(true)
  })
})
