export { DEFAULT_CONFIG_FILE, DEFAULT_SQLITE_PATH, defaultConfig, type Config } from './defaults.js';
export { resolveConfig, type ConfigFlags, type ResolveConfigOptions } from './resolve-config.js';
export { SETTINGS } from './settings.js';
