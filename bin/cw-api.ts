#!/usr/bin/env node
import { apiConfig } from '../api/config.ts';
import { main } from '../api/main.ts';
import { runBinary } from '../src/config/run-binary.ts';

runBinary('cw-api', () => main(apiConfig(process.env)));
