// SPDX-License-Identifier: MIT
#pragma once

namespace gatehouse {

// Where a connection is (RedisConnection::State): what the console shows and
// what a snapshot carries, without the connection itself.
enum class ConnectionState { Disconnected, Connecting, Ready, Reconnecting, Failed };

// What the last error was about (RedisConnection::ErrorKind), so a console can
// say what to try without reading the sentence: Network heals by waiting
// (refused, lost, no answer); Authentication and Tls need the operator
// (credentials, certificates, a TLS port spoken in plain text or the reverse);
// Setup is any other final refusal (no such database, no master named).
enum class ConnectionErrorKind { None, Network, Authentication, Tls, Setup };

} // namespace gatehouse
