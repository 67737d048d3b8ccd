#!/bin/sh
tail -F deploy.log | nc collector.example.com 9000
