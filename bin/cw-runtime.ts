#!/usr/bin/env node
import { runtimeServerConfig } from '../operator/app-server/config.ts';
import { main } from '../operator/app-server/main.ts';
import { runBinary } from '../src/config/run-binary.ts';

runBinary('cw-runtime', () => main(runtimeServerConfig(process.env)));
