// The peer: @rjsf/core + @rjsf/validator-ajv8 + @rjsf/utils on React 19. bench/run.mjs bundles this
// file with esbuild (minified, production React) into bench/out/peer/peer.js, the one file the
// peer page loads. Importing it evaluates everything (React, rjsf, an Ajv instance): "ready".
import { createElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import Form from '@rjsf/core';
import validator from '@rjsf/validator-ajv8';

export { createElement, createRoot, flushSync, Form, validator };
