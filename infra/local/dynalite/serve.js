// dynalite on 127.0.0.1 only, its tables active at once (moto's are; the service's table setup does
// not wait): node serve.js <port> <data directory>
const [port, path] = process.argv.slice(2)
require('dynalite')({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 })
  .listen(Number(port), '127.0.0.1', () => console.log(`dynalite on 127.0.0.1:${port}, data in ${path}`))
