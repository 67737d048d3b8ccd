#!/bin/sh
echo counted
