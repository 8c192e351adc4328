// The storage contract against SQLite: a database file in a temp directory, and `:memory:`.
import { openMemorySqlite, openTempSqlite } from '../helpers/storage.js';
import { storageContract } from './storage.contract.js';

storageContract('SQLite file', openTempSqlite);
storageContract('SQLite :memory:', openMemorySqlite);
