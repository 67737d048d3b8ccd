#!/bin/sh
tail -F deploy.log
