# frozen_string_literal: true

require_relative 'lib/goswiss/version'

Gem::Specification.new do |s|
  s.name = 'goswiss'
  s.version = Goswiss::VERSION
  s.summary = 'Client for the goswiss Go tournament daemon (JSON-RPC and XML-RPC)'
  s.description = 'Every method of the goswiss daemon as a Ruby method, generated from its ' \
                  'rpc.discover document, over JSON-RPC (net/http) or XML-RPC, with one ' \
                  'exception class per error code and the director token.'
  s.authors = ['goswiss']
  s.licenses = %w[MIT Apache-2.0] # either, as the rest of goswiss
  s.required_ruby_version = '>= 3.0'
  s.files = Dir['lib/**/*.rb'] + Dir['tools/*.rb'] + Dir['examples/*.rb'] + ['README.md']
  s.require_paths = ['lib']
  # The XML-RPC wire; Debian ships it as ruby-xmlrpc (no download needed there).
  s.add_runtime_dependency 'xmlrpc', '~> 0.3'
  s.add_development_dependency 'minitest', '~> 5'
  s.add_development_dependency 'rake', '~> 13'
end
