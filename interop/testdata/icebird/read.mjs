// Reads an Iceberg table with icebird (an independent JavaScript reader)
// and prints its rows as JSON: node read.mjs TABLE_URL [METADATA_FILE].
// Node 20's fetch has no file:// scheme, so file:// URLs (whole objects,
// HEAD and byte ranges, as hyparquet asks) are served from disk here.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { icebergRead } from 'icebird'

const httpFetch = globalThis.fetch
globalThis.fetch = async (input, init = {}) => {
  const url = typeof input === 'string' ? input : input.url
  if (!url.startsWith('file://')) return httpFetch(input, init)
  let data
  try {
    data = await readFile(fileURLToPath(url))
  } catch {
    return new Response(null, { status: 404, statusText: 'Not Found' })
  }
  const headers = new Headers(init.headers)
  if (init.method === 'HEAD') {
    return new Response(null, { status: 200, headers: { 'Content-Length': String(data.length) } })
  }
  const range = headers.get('Range')
  if (range) {
    const m = /^bytes=(\d+)-(\d*)$/.exec(range)
    if (!m) return new Response(null, { status: 416 })
    const start = Number(m[1])
    const end = m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1)
    return new Response(data.subarray(start, end + 1), { status: 206 })
  }
  return new Response(data, { status: 200 })
}

const [tableUrl, metadataFileName] = process.argv.slice(2)
const rows = await icebergRead({ tableUrl, metadataFileName })
process.stdout.write(JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
