# frozen_string_literal: true

# goswiss: a Ruby client for the goswiss Go tournament daemon.
#
# - Goswiss::Client: blocking, JSON-RPC 2.0 over HTTP (default) or XML-RPC
#   (`protocol: :xmlrpc`), every method of the daemon's `rpc.discover` as a Ruby method
#   (Goswiss::Methods, generated), `call` for any other, `follow` for live events by polling.
# - Goswiss::Fault and one subclass per documented error code (lib/goswiss/errors.rb), with
#   `code`, `message` and `data`; Goswiss::TransportError when there is no answer.
#
# Standard library only, plus the xmlrpc gem (Debian: ruby-xmlrpc) for the XML-RPC wire.

require_relative 'goswiss/version'
require_relative 'goswiss/errors'
require_relative 'goswiss/methods'
require_relative 'goswiss/client'
